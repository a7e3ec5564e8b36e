import { Page } from '../../components/Page';

export default function SubmissionsPage() {
  return (
    <Page title="Submissions">
      <p>This page is coming soon.</p>
    </Page>
  );
}
