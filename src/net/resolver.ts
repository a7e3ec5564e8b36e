import { lookup } from 'node:dns/promises';

/**
 * Resolves a host name to every address it has (A and AAAA), as text. Injected so
 * tests can use a fixed table and the invoker can share one with the endpoint checks.
 * Throws (or returns an empty list) when the name does not resolve.
 */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** The operating system's resolver (getaddrinfo), so /etc/hosts and search domains apply. */
export const systemResolver: HostResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};

export type Resolution = { ok: true; addresses: string[] } | { ok: false; problem: string };

/** getaddrinfo has no deadline of its own; a slow DNS server must not hold a request. */
export async function resolveWithin(resolver: HostResolver, hostname: string, timeoutMs: number): Promise<Resolution> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Resolution>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, problem: `did not resolve within ${timeoutMs / 1000} s` }), timeoutMs);
  });
  const attempt = resolver(hostname).then(
    (addresses): Resolution => (addresses.length > 0 ? { ok: true, addresses } : { ok: false, problem: 'has no A or AAAA record' }),
    (error: unknown): Resolution => ({ ok: false, problem: describeDnsError(error) }),
  );
  try {
    return await Promise.race([attempt, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function describeDnsError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'EAI_NONAME') return 'does not resolve';
  if (code === 'EAI_AGAIN' || code === 'ETIMEOUT') return 'could not be resolved right now (temporary DNS failure)';
  return 'could not be resolved';
}
