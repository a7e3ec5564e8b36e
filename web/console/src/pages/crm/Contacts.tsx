import { Page } from '../../components/Page';

/** Placeholder: the CRM pages replace it. */
export default function ContactsPage() {
  return (
    <Page title="Contacts">
      <p>This page is coming soon.</p>
    </Page>
  );
}
