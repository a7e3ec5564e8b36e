/**
 * The end of a filter form: the submit button, and Clear filters while any filter applies (it goes
 * away with them, so the page moves focus on clear). Shared so filtered lists look and read alike.
 */
export function FilterActions({ filtered, onClear, submitLabel = 'Search' }: { filtered: boolean; onClear: () => void; submitLabel?: string }) {
  return (
    <div className="crm-filter-actions">
      <button type="submit" className="button primary">
        {submitLabel}
      </button>
      {filtered ? (
        <button type="button" className="button" onClick={onClear}>
          Clear filters
        </button>
      ) : null}
    </div>
  );
}
