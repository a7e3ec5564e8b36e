import { BrandForm } from './Brand';
import { useAgent } from './tabs';

/** The agent page's "Brand": its name, and the brand that styles the forms it is assigned to. */
export default function BrandTab() {
  const agent = useAgent();
  return (
    <>
      <p className="intro">The brand styles every form you assign this agent to. The preview shows a sample form.</p>
      <BrandForm key={agent.id} agent={agent} />
    </>
  );
}
