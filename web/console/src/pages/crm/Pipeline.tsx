import { Page } from '../../components/Page';

/** Placeholder: the CRM pages replace it. */
export default function PipelinePage() {
  return (
    <Page title="Pipeline">
      <p>This page is coming soon.</p>
    </Page>
  );
}
