import { Page } from '../../../components/Page';

/** Placeholder: a portal helper builds this page (issue 20). */
export default function AppsPage() {
  return <Page title="Apps" intro="This page is being built." />;
}
