/** Log paths that may carry secrets; pino replaces them before a line is written. */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.password',
  '*.token',
  '*.apiKey',
  '*.secret',
  '*.credentials',
];
