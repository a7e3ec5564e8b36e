import { TextField } from '../../components/fields';

/** The optional name agents call a tool by, as both the Enable dialog and the tool's page edit it; `hint` says what empty means there. */
export function AliasField({ value, onChange, hint, error }: { value: string; onChange: (alias: string) => void; hint: string; error: string | undefined }) {
  return (
    <TextField
      label="Name for agents (optional)"
      name="alias"
      hint={hint}
      maxLength={64}
      spellCheck={false}
      autoComplete="off"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={error}
    />
  );
}
