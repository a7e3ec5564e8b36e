import { Page } from '../../../components/Page';

/** Placeholder: a portal helper builds this page (issue 20). */
export default function ToolPagePage() {
  return <Page title="ToolPage" intro="This page is being built." />;
}
