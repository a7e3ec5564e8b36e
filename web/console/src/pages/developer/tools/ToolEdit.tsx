import { Page } from '../../../components/Page';

/** Placeholder: a portal helper builds this page (issue 20). */
export default function ToolEditPage() {
  return <Page title="ToolEdit" intro="This page is being built." />;
}
