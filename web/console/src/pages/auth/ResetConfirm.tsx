import { Page } from '../../components/Page';

export default function ResetConfirmPage() {
  return (
    <Page title="Choose a new password">
      <p>This page is coming soon.</p>
    </Page>
  );
}
