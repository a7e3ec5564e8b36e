import { Page } from '../../components/Page';

export default function FormsListPage() {
  return (
    <Page title="Forms">
      <p>This page is coming soon.</p>
    </Page>
  );
}
