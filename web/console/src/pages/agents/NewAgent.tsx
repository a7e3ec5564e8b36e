import { Page } from '../../components/Page';
import { BrandForm } from './Brand';

/** A new agent: its name and brand; Create agent opens its page. */
export default function NewAgent() {
  return (
    <Page title="New agent" intro="The brand styles every form you assign this agent to. The preview shows a sample form.">
      <BrandForm agent={null} />
    </Page>
  );
}
