import { Page } from '../components/Page';

export default function SettingsPage() {
  return (
    <Page title="Settings">
      <p>This page is coming soon.</p>
    </Page>
  );
}
