import { Page } from '../components/Page';

export default function MembersPage() {
  return (
    <Page title="Members">
      <p>This page is coming soon.</p>
    </Page>
  );
}
