/** Where every provider sends the browser back: one path for every tool and organization, the `state` says whose. */
export const CALLBACK_PATH = '/oauth/callback';

/** `{PUBLIC_URL}/oauth/callback`: the redirect URI developers register at their provider. */
export function oauthRedirectUri(publicUrl: string): string {
  return new URL(CALLBACK_PATH, publicUrl).href;
}
