import { Page } from '../../components/Page';

export default function AcceptInvitationPage() {
  return (
    <Page title="Join your team">
      <p>This page is coming soon.</p>
    </Page>
  );
}
