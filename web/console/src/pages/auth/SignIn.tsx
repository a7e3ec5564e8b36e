import { Page } from '../../components/Page';

export default function SignInPage() {
  return (
    <Page title="Sign in">
      <p>This page is coming soon.</p>
    </Page>
  );
}
