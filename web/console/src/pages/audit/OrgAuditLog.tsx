import '../tools/tools.css';
import { AuditLog } from './AuditLog';

/** The organization's audit log (owners: the route is inside RequireOwner). */
export default function OrgAuditLogPage() {
  return <AuditLog scope="org" />;
}
