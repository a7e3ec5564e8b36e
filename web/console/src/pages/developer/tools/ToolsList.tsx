import { Page } from '../../../components/Page';

/** Placeholder: a portal helper builds this page (issue 20). */
export default function ToolsListPage() {
  return <Page title="ToolsList" intro="This page is being built." />;
}
