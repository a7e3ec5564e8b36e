import { useEffect, useRef } from 'react';

/** A color chip. The color is set through the CSSOM (allowed by the console's CSP, unlike a style attribute). */
export function Swatch({ color, label }: { color: string; label: string }) {
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    ref.current?.style.setProperty('--swatch', color);
  }, [color]);
  return <span ref={ref} className="swatch" role="img" aria-label={`${label} ${color}`} title={`${label} ${color}`} />;
}
