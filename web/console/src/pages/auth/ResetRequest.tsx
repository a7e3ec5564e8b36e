import { Page } from '../../components/Page';

export default function ResetRequestPage() {
  return (
    <Page title="Reset your password">
      <p>This page is coming soon.</p>
    </Page>
  );
}
