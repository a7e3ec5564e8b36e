import { useState, type ReactNode } from 'react';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';

/**
 * A button that asks before doing something that cannot be undone. The dialog stays open while the
 * action runs, shows the API's refusal as it comes, and closes once the action succeeds.
 */
export function ConfirmButton({
  label,
  buttonLabel,
  title,
  children,
  confirmLabel,
  action,
  className = 'button small danger-outline',
}: {
  /** The trigger's visible text. */
  label: ReactNode;
  /** The trigger's accessible name when the visible text alone is ambiguous ("Delete" in a list). */
  buttonLabel?: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  action: () => Promise<unknown>;
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const onOpenChange = (next: boolean) => {
    if (pending) return;
    setOpen(next);
    if (next) setError(null);
  };

  const confirm = async () => {
    setPending(true);
    setError(null);
    try {
      await action();
      setOpen(false);
      // What was deleted took its button along: focus goes to the page's heading rather than nowhere.
      setTimeout(() => {
        if (!document.activeElement || document.activeElement === document.body) document.querySelector<HTMLElement>('main h1')?.focus();
      }, 50);
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : 'Something went wrong.');
    } finally {
      setPending(false);
    }
  };

  return (
    <DialogTrigger isOpen={open} onOpenChange={onOpenChange}>
      <Button className={className} {...(buttonLabel ? { 'aria-label': buttonLabel } : {})}>
        {label}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!pending}>
        <Modal className="modal crm-confirm">
          <Dialog role="alertdialog" className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title">{title}</Heading>
                <div>{children}</div>
                {error ? (
                  <p className="form-error" role="alert">
                    {error}
                  </p>
                ) : null}
                <div className="actions">
                  <Button className="button danger" isPending={pending} onPress={() => void confirm()}>
                    {pending ? 'Working…' : confirmLabel}
                  </Button>
                  <Button className="button" onPress={() => (pending ? undefined : close())} autoFocus>
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
