import { useEffect, useId, useRef, useState } from 'react';
import type { DeveloperTool } from '../../../api/types';
import { usePublicUrl } from '../../../api/session';
import { CopyButton } from '../../../components/CopyButton';
import { SelectField, TextField } from '../../../components/fields';
import { blankExtraParam, parseScopes, TOKEN_AUTH_METHODS, type OAuthDraft, type TokenAuthMethod } from './draft';

const METHOD_LABELS: Record<TokenAuthMethod, string> = {
  client_secret_basic: 'HTTP Basic (client_secret_basic)',
  client_secret_post: 'In the request body (client_secret_post)',
};

/** The redirect URI the server answers with a saved oauth2 tool; before that, the same one made from PUBLIC_URL. */
export function redirectUriOf(tool: DeveloperTool | null, publicUrl: string): string {
  return tool?.oauth?.redirectUri ?? new URL('/oauth/callback', publicUrl).href;
}

interface Props {
  tool: DeveloperTool | null;
  oauth: OAuthDraft;
  onChange: (next: OAuthDraft) => void;
  /** The error of an `oauth.*` path: the page's checks, then the API's refusal. */
  errorOf: (path: string) => string | undefined;
}

/**
 * An oauth2 tool's provider (docs/tool-endpoints.md, OAuth tools): where businesses sign in and consent, where
 * codes and refresh tokens are exchanged, the scopes, the client's id and write-only secret, and the redirect URI
 * to register at the provider, read-only with a Copy button.
 */
export function OAuthSection({ tool, oauth, onChange, errorOf }: Props) {
  const publicUrl = usePublicUrl();
  const redirectUri = redirectUriOf(tool, publicUrl);
  const redirectId = useId();
  const redirectHint = `${redirectId}-hint`;
  const set = (change: Partial<OAuthDraft>) => onChange({ ...oauth, ...change });
  const hasSecret = tool?.oauth?.hasClientSecret ?? false;
  const scopes = parseScopes(oauth.scopes);
  const generalError = errorOf('oauth');

  return (
    <section className="card" aria-labelledby="tool-oauth-title">
      <h2 id="tool-oauth-title">OAuth</h2>
      <p className="hint">
        Each business that enables the tool connects its own account at your provider. The service keeps the tokens, renews them before they expire and sends{' '}
        <code>Authorization: Bearer</code> with the access token to your endpoint.
      </p>
      {generalError ? (
        <p className="field-error" role="alert">
          {generalError}
        </p>
      ) : null}
      <div className="field">
        <label htmlFor={redirectId}>Redirect URI</label>
        <p id={redirectHint} className="hint">
          Register this exact address at your provider as an allowed redirect (callback) URI.
        </p>
        <div className="oauth-redirect">
          <input id={redirectId} aria-describedby={redirectHint} readOnly value={redirectUri} spellCheck={false} onFocus={(e) => e.target.select()} />
          <CopyButton text={redirectUri} className="button" />
        </div>
      </div>
      <TextField
        label="Authorization URL"
        hint="The provider’s authorization endpoint, where people sign in and consent: https:// and public."
        required
        type="url"
        inputMode="url"
        spellCheck={false}
        autoComplete="off"
        placeholder="https://auth.example.com/oauth/authorize"
        maxLength={2048}
        value={oauth.authorizationUrl}
        onChange={(e) => set({ authorizationUrl: e.target.value })}
        error={errorOf('oauth.authorizationUrl')}
      />
      <TextField
        label="Token URL"
        hint="The provider’s token endpoint, where codes and refresh tokens are exchanged: https:// and public."
        required
        type="url"
        inputMode="url"
        spellCheck={false}
        autoComplete="off"
        placeholder="https://auth.example.com/oauth/token"
        maxLength={2048}
        value={oauth.tokenUrl}
        onChange={(e) => set({ tokenUrl: e.target.value })}
        error={errorOf('oauth.tokenUrl')}
      />
      <TextField
        label="Scopes"
        hint={
          <>
            Separated by spaces or commas. Ask for <code>offline_access</code> (or your provider’s equivalent) to get a refresh token.
            {scopes.length ? ` ${scopes.length === 1 ? '1 scope' : `${scopes.length} scopes`}.` : ''}
          </>
        }
        spellCheck={false}
        autoComplete="off"
        autoCapitalize="off"
        placeholder="openid email offline_access"
        value={oauth.scopes}
        onChange={(e) => set({ scopes: e.target.value })}
        error={errorOf('oauth.scopes')}
      />
      <div className="row">
        <TextField
          label="Client ID"
          hint="Your client id at the provider."
          required
          spellCheck={false}
          autoComplete="off"
          autoCapitalize="off"
          maxLength={512}
          value={oauth.clientId}
          onChange={(e) => set({ clientId: e.target.value })}
          error={errorOf('oauth.clientId')}
        />
        <TextField
          label="Client secret"
          hint={hasSecret ? 'A secret is stored; enter a new one to replace it.' : 'Stored encrypted and never shown again.'}
          required={!hasSecret}
          type="password"
          autoComplete="new-password"
          spellCheck={false}
          autoCapitalize="off"
          maxLength={2048}
          value={oauth.clientSecret}
          onChange={(e) => set({ clientSecret: e.target.value })}
          error={errorOf('oauth.clientSecret')}
        />
      </div>
      <SelectField
        label="Token endpoint authentication"
        hint="How the client id and secret are sent to the token URL."
        value={oauth.tokenAuthMethod}
        onChange={(e) => set({ tokenAuthMethod: e.target.value as TokenAuthMethod })}
        error={errorOf('oauth.tokenAuthMethod')}
      >
        {TOKEN_AUTH_METHODS.map((method) => (
          <option key={method} value={method}>
            {METHOD_LABELS[method]}
          </option>
        ))}
      </SelectField>
      <TextField
        label="Revocation URL (optional)"
        hint="Where tokens are revoked when a business disconnects (RFC 7009). Leave empty if your provider has none."
        type="url"
        inputMode="url"
        spellCheck={false}
        autoComplete="off"
        placeholder="https://auth.example.com/oauth/revoke"
        maxLength={2048}
        value={oauth.revocationUrl}
        onChange={(e) => set({ revocationUrl: e.target.value })}
        error={errorOf('oauth.revocationUrl')}
      />
      <ExtraParams oauth={oauth} onChange={set} errorOf={errorOf} />
    </section>
  );
}

/** Extra authorization parameters (`access_type=offline`, `prompt=consent`…): rows of name and value, each removable. */
function ExtraParams({ oauth, onChange, errorOf }: { oauth: OAuthDraft; onChange: (change: Partial<OAuthDraft>) => void; errorOf: (path: string) => string | undefined }) {
  const listRef = useRef<HTMLUListElement>(null);
  const addRef = useRef<HTMLButtonElement>(null);
  const [focusNext, setFocusNext] = useState<string | null>(null);
  const errorId = useId();
  const rows = oauth.extraParams;
  const error = errorOf('oauth.extraAuthorizeParams');

  useEffect(() => {
    if (focusNext === null) return;
    const target = focusNext === 'add' ? addRef.current : listRef.current?.querySelector<HTMLElement>(`[data-row="${focusNext}"] input`);
    target?.focus();
    setFocusNext(null);
  }, [focusNext, rows]);

  const update = (key: string, change: { name?: string; value?: string }) => onChange({ extraParams: rows.map((row) => (row.key === key ? { ...row, ...change } : row)) });

  function add() {
    if (rows.length >= 20) return;
    const row = blankExtraParam();
    onChange({ extraParams: [...rows, row] });
    setFocusNext(row.key);
  }

  function remove(index: number) {
    const next = rows.filter((_, i) => i !== index);
    onChange({ extraParams: next });
    setFocusNext(next[Math.min(index, next.length - 1)]?.key ?? 'add');
  }

  return (
    <fieldset aria-describedby={error ? errorId : undefined}>
      <legend>Extra authorization parameters (optional)</legend>
      <p className="hint">
        Added to the authorization URL as they are, for providers that need them, like <code>access_type</code> = <code>offline</code> or <code>prompt</code> = <code>consent</code>.
      </p>
      {rows.length ? (
        <ul className="oauth-extras" ref={listRef}>
          {rows.map((row, index) => {
            const name = row.name.trim();
            return (
              <li key={row.key} data-row={row.key}>
                <div role="group" aria-label={`Extra parameter ${index + 1}`} className="row">
                <TextField
                  label="Name"
                  spellCheck={false}
                  autoComplete="off"
                  autoCapitalize="off"
                  maxLength={64}
                  value={row.name}
                  onChange={(e) => update(row.key, { name: e.target.value })}
                  error={errorOf(`oauth.extra.${index}.name`) ?? (name ? errorOf(`oauth.extraAuthorizeParams.${name}`) : undefined)}
                />
                <TextField label="Value" spellCheck={false} autoComplete="off" autoCapitalize="off" maxLength={512} value={row.value} onChange={(e) => update(row.key, { value: e.target.value })} />
                <div className="field oauth-extra-remove">
                  <button type="button" className="button small" aria-label={`Remove extra parameter ${name || index + 1}`} onClick={() => remove(index)}>
                    Remove
                  </button>
                </div>
                </div>
              </li>
            );
          })}
        </ul>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
      <div className="actions oauth-extras-add">
        <button ref={addRef} type="button" className="button" aria-disabled={rows.length >= 20 || undefined} onClick={add}>
          Add authorization parameter
        </button>
      </div>
    </fieldset>
  );
}
