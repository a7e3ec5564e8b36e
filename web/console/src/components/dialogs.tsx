import { useState, type ReactNode } from 'react';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';

/** A modal dialog (React Aria: focus trapped and restored, Escape closes) with a heading that names it. */
export function ModalDialog({
  title,
  isOpen,
  onOpenChange,
  role = 'dialog',
  isDismissable = true,
  children,
}: {
  title: string;
  isOpen: boolean;
  onOpenChange: (open: boolean) => void;
  role?: 'dialog' | 'alertdialog';
  isDismissable?: boolean;
  children: (close: () => void) => ReactNode;
}) {
  return (
    <ModalOverlay className="modal-overlay" isOpen={isOpen} onOpenChange={onOpenChange} isDismissable={isDismissable}>
      <Modal className="modal">
        <Dialog className="dialog" role={role}>
          {({ close }) => (
            <>
              <Heading slot="title">{title}</Heading>
              {children(close)}
            </>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

/**
 * A button that asks before doing something that cannot be undone. `onConfirm` may return a promise:
 * the dialog stays open (and cannot be dismissed) while it runs, shows the API's message if it fails,
 * and closes once it succeeds.
 */
export function ConfirmButton({
  label,
  title,
  confirmLabel,
  children,
  onConfirm,
  className = 'button danger-outline',
  buttonLabel,
}: {
  label: ReactNode;
  title: string;
  confirmLabel: string;
  children: ReactNode;
  onConfirm: () => Promise<unknown> | void;
  className?: string;
  /** Accessible name of the opening button, when `label` alone is ambiguous in a list ("Revoke Zapier"). */
  buttonLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
      // What was removed often took its button along: focus goes to the page's heading rather than nowhere.
      setTimeout(() => {
        if (!document.activeElement || document.activeElement === document.body) document.querySelector<HTMLElement>('main h1')?.focus();
      }, 50);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <DialogTrigger
      isOpen={open}
      onOpenChange={(next) => {
        if (busy) return;
        setOpen(next);
        if (!next) setError(null);
      }}
    >
      <Button className={className} aria-label={buttonLabel}>
        {label}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!busy}>
        <Modal className="modal confirm">
          <Dialog className="dialog" role="alertdialog">
            {({ close }) => (
              <>
                <Heading slot="title">{title}</Heading>
                {children}
                {error ? (
                  <p className="form-error" role="alert">
                    {error}
                  </p>
                ) : null}
                <div className="actions">
                  <Button className="button danger" isPending={busy} onPress={() => void confirm()}>
                    {busy ? 'Working…' : confirmLabel}
                  </Button>
                  <Button className="button" onPress={() => (busy ? undefined : close())} autoFocus>
                    Cancel
                  </Button>
                </div>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
