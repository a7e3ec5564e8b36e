import { useEffect } from 'react';
import { Button } from 'react-aria-components';
import { useBlocker } from 'react-router';
import { ModalDialog } from './dialogs';

/** Asks before leaving a page with unsaved changes: inside the console (a dialog) and when closing the tab. */
export function UnsavedChanges({ when }: { when: boolean }) {
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      when && currentLocation.pathname !== nextLocation.pathname && !(nextLocation.state as { skipUnsaved?: boolean } | null)?.skipUnsaved,
  );
  useEffect(() => {
    if (!when) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [when]);
  const open = blocker.state === 'blocked';
  return (
    <ModalDialog title="Leave without saving?" role="alertdialog" isOpen={open} onOpenChange={(next) => !next && blocker.reset?.()}>
      {() => (
        <>
          <p>Your changes on this page are not saved yet.</p>
          <div className="actions">
            <Button className="button" onPress={() => blocker.reset?.()} autoFocus>
              Stay and keep editing
            </Button>
            <Button className="button danger-outline" onPress={() => blocker.proceed?.()}>
              Leave and lose changes
            </Button>
          </div>
        </>
      )}
    </ModalDialog>
  );
}
