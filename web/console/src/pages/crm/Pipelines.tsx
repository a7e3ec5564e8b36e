import { Page } from '../../components/Page';

/** Placeholder: the CRM pages replace it. */
export default function PipelinesPage() {
  return (
    <Page title="Pipelines">
      <p>This page is coming soon.</p>
    </Page>
  );
}
