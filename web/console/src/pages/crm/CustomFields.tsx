import { Page } from '../../components/Page';

/** Placeholder: the CRM pages replace it. */
export default function CustomFieldsPage() {
  return (
    <Page title="Custom fields">
      <p>This page is coming soon.</p>
    </Page>
  );
}
