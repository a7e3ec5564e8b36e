import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { FilterActions } from '../../components/FilterActions';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { TextField } from '../../components/fields';
import { useAddressFilters } from '../../lib/useAddressFilters';
import { crmKeys, fetchContacts, type ContactFilters } from './api';
import { focusSoon } from './focus';
import { fieldError } from '../../lib/errors';
import { formatDateTime } from '../../lib/format';
import { contactName } from './format';
import './crm.css';

const EMPTY: ContactFilters = { q: '', email: '', phone: '' };

/** Contacts: search (`q`) and exact filters (email, phone) kept in the address, newest first, a page at a time. */
export default function ContactsPage() {
  const { filters, draft, setDraft, filtered, onSubmit, clear: clearFilters } = useAddressFilters(EMPTY);

  const query = useInfiniteQuery({
    queryKey: crmKeys.contacts(filters),
    queryFn: ({ pageParam, signal }) => fetchContacts(filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });

  const clear = () => {
    clearFilters();
    // The button goes away with the filters: focus goes back to the search box.
    focusSoon('input[name="q"]');
  };

  const error = query.error;
  const contacts = query.data?.pages.flatMap((page) => page.items) ?? [];

  // The first of the newly shown contacts takes focus, so keyboard users carry on where the list grew.
  const showMore = () => {
    if (query.isFetchingNextPage) return;
    const shown = contacts.length;
    void query.fetchNextPage().then((result) => {
      if (result.isError) return;
      setTimeout(() => document.querySelectorAll<HTMLElement>('[data-contact-link]')[shown]?.focus(), 30);
    });
  };

  return (
    <Page title="Contacts" intro="People who reached you through your forms or the API.">
      <form role="search" aria-label="Contacts" className="crm-filters" onSubmit={onSubmit} noValidate>
        <TextField label="Search" hint="Name, email, phone or company" type="search" name="q" value={draft.q} maxLength={200} onChange={(e) => setDraft({ ...draft, q: e.target.value })} error={fieldError(error, 'q')} />
        <TextField label="Email" hint="Exact address" type="email" name="email" value={draft.email} maxLength={254} onChange={(e) => setDraft({ ...draft, email: e.target.value })} error={fieldError(error, 'email')} />
        <TextField label="Phone" hint="Any format" type="tel" name="phone" value={draft.phone} maxLength={40} onChange={(e) => setDraft({ ...draft, phone: e.target.value })} error={fieldError(error, 'phone')} />
        <FilterActions filtered={filtered} onClear={clear} />
      </form>

      {query.isPending ? (
        <Loading label="Loading contacts…" />
      ) : query.isError && !contacts.length ? (
        fieldError(error, 'q') || fieldError(error, 'email') || fieldError(error, 'phone') ? null : <LoadError error={error} retry={() => void query.refetch()} />
      ) : contacts.length === 0 ? (
        filtered ? (
          <div className="empty">
            <p>No contacts match these filters. Try fewer words, or clear the filters.</p>
            <button type="button" className="button" onClick={clear}>
              Clear filters
            </button>
          </div>
        ) : (
          <div className="empty">
            <p>No contacts yet. Contacts appear here when visitors submit your forms.</p>
            <Link className="button primary" to="/forms">
              Go to your forms
            </Link>
          </div>
        )
      ) : (
        <>
          <p className="visually-hidden" role="status">
            {`${contacts.length}${query.hasNextPage ? ' or more' : ''} contact${contacts.length === 1 && !query.hasNextPage ? '' : 's'} shown`}
          </p>
          <div className="table-wrap crm-table-wrap">
            <table>
              <caption className="visually-hidden">Contacts, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Phone</th>
                  <th scope="col" className="crm-hide-narrow">
                    Company
                  </th>
                  <th scope="col" className="crm-hide-narrow">
                    Added
                  </th>
                </tr>
              </thead>
              <tbody>
                {contacts.map((contact) => (
                  <tr key={contact.id}>
                    <td className="crm-wrap">
                      <Link to={`/contacts/${encodeURIComponent(contact.id)}`} data-contact-link>
                        {contactName(contact)}
                      </Link>
                    </td>
                    <td className="crm-wrap">{contact.email ?? '—'}</td>
                    <td className="crm-nowrap">{contact.phone ?? '—'}</td>
                    <td className="crm-wrap crm-hide-narrow">{contact.company ?? '—'}</td>
                    <td className="crm-nowrap crm-hide-narrow">{formatDateTime(contact.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {query.isError ? <LoadError error={error} retry={() => void query.fetchNextPage()} /> : null}
          {query.hasNextPage ? (
            <div className="actions">
              <button type="button" className="button" aria-disabled={query.isFetchingNextPage || undefined} onClick={showMore}>
                {query.isFetchingNextPage ? 'Loading more…' : 'Show more contacts'}
              </button>
            </div>
          ) : null}
        </>
      )}
    </Page>
  );
}
