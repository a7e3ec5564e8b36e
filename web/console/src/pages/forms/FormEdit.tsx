import { Page } from '../../components/Page';

export default function FormEditPage() {
  return (
    <Page title="Form">
      <p>This page is coming soon.</p>
    </Page>
  );
}
