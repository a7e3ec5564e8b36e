import { Page } from '../../components/Page';

/** Placeholder: the CRM pages replace it. */
export default function ContactPage() {
  return (
    <Page title="Contact">
      <p>This page is coming soon.</p>
    </Page>
  );
}
