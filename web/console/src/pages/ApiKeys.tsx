import { Page } from '../components/Page';

export default function ApiKeysPage() {
  return (
    <Page title="API keys">
      <p>This page is coming soon.</p>
    </Page>
  );
}
