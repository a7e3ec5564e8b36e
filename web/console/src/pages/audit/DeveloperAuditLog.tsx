import '../tools/tools.css';
import { AuditLog } from './AuditLog';

/** A developer's own audit log, in the portal. */
export default function DeveloperAuditLogPage() {
  return <AuditLog scope="dev" />;
}
