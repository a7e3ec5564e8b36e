import { TableWrap } from '../../../components/TableWrap';
import { isEmptyDiff, parameterSummary, type DefinitionDiff } from './definitionDiff';

/**
 * A definition diff in words: each changed field with its old and new value in a table, then each
 * parameter marked "Added", "Removed" or "Changed" in text (colour only repeats what the words say).
 */
export function DiffView({ diff, beforeLabel, afterLabel, label, headingLevel }: { diff: DefinitionDiff; beforeLabel: string; afterLabel: string; label: string; headingLevel: 3 | 4 }) {
  const Heading = headingLevel === 3 ? 'h3' : 'h4';
  if (isEmptyDiff(diff)) return <p>No changes: the definitions are the same.</p>;
  return (
    <div className="tool-diff">
      {diff.fields.length ? (
        <TableWrap label={`${label}: fields`}>
          <table>
            <caption>Changed fields</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">{beforeLabel}</th>
                <th scope="col">{afterLabel}</th>
              </tr>
            </thead>
            <tbody>
              {diff.fields.map((change) => (
                <tr key={change.field}>
                  <th scope="row">{change.label}</th>
                  <td className="tool-diff-old">{change.before}</td>
                  <td className="tool-diff-new">{change.after}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {diff.parameters.length || diff.reordered ? (
        <>
          <Heading className="tool-diff-title">Parameters</Heading>
          <ul className="tool-diff-params">
            {diff.parameters.map((change) => (
              <li key={`${change.kind}-${change.name}`} className={`tool-diff-${change.kind}`}>
                <span className="badge">{change.kind === 'added' ? 'Added' : change.kind === 'removed' ? 'Removed' : 'Changed'}</span> <code>{change.name}</code>
                {change.kind === 'added' ? <>: {parameterSummary(change.after)}</> : null}
                {change.kind === 'removed' ? <>: was {parameterSummary(change.before)}</> : null}
                {change.kind === 'changed' ? (
                  <ul>
                    {change.changes.map((c) => (
                      <li key={c.label}>
                        {c.label}: was {c.before}, now {c.after}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
            {diff.reordered ? <li>The parameters are in a new order.</li> : null}
          </ul>
        </>
      ) : null}
    </div>
  );
}
