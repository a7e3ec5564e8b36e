import { Page } from '../../components/Page';

export default function AgentsPage() {
  return (
    <Page title="Agents">
      <p>This page is coming soon.</p>
    </Page>
  );
}
