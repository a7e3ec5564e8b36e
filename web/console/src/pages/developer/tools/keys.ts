/** Query keys of the developer's tools (the portal's tools pages share them, and the Developer page's list). */
export const toolKeys = {
  all: ['developer', 'tools'] as const,
  tool: (id: string) => ['developer', 'tools', id] as const,
};
