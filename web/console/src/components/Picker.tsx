import type { Key, ReactNode } from 'react';
import { Button, FieldError, Label, ListBox, ListBoxItem, Popover, Select, SelectValue, Text } from 'react-aria-components';

export interface PickerItem {
  id: string;
  label: string;
  description?: string;
}

/**
 * A select (React Aria: a labelled button opening a listbox, typeahead, keyboard). `''` is a valid id,
 * for a "default" choice.
 */
export function Picker({
  label,
  hint,
  error,
  items,
  selected,
  onChange,
  isDisabled,
}: {
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  items: PickerItem[];
  selected: string;
  onChange: (id: string) => void;
  isDisabled?: boolean;
}) {
  return (
    <Select
      className="field picker"
      selectedKey={selected}
      onSelectionChange={(key: Key | null) => key !== null && onChange(String(key))}
      isInvalid={!!error}
      isDisabled={isDisabled ?? false}
    >
      <Label>{label}</Label>
      {hint ? (
        <Text slot="description" className="hint">
          {hint}
        </Text>
      ) : null}
      <Button className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </Button>
      <FieldError className="field-error">{error}</FieldError>
      <Popover className="popover" placement="bottom start">
        <ListBox className="menu" items={items}>
          {(item) => (
            <ListBoxItem id={item.id} className="menu-item" textValue={item.label}>
              {item.label}
              {item.description ? <span className="item-desc"> {item.description}</span> : null}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}
