import { Link } from 'react-router';
import { Page } from './Page';

/** Unknown path, or an id the API answers 404 for (missing, or another organization's). */
export function NotFound({ what }: { what?: string }) {
  return (
    <Page title="Not found">
      <p>{what ? `This ${what} does not exist, or it belongs to another organization.` : 'There is no page at this address.'}</p>
      <p>
        <Link to="/forms">Go to your forms</Link>
      </p>
    </Page>
  );
}

export default NotFound;
