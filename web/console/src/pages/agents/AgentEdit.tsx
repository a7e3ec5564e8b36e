import { Page } from '../../components/Page';

export default function AgentEditPage() {
  return (
    <Page title="Agent">
      <p>This page is coming soon.</p>
    </Page>
  );
}
