import { Page } from '../../components/Page';

export default function SignUpPage() {
  return (
    <Page title="Create your account">
      <p>This page is coming soon.</p>
    </Page>
  );
}
