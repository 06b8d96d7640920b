// A QR code drawn in the page as SVG, from the matrix of uqr: no network, no image service (a QR service
// would see the TOTP secret), no innerHTML, no inline style (the Content-Security-Policy allows neither).
import { encode } from 'uqr';

const SVG = 'http://www.w3.org/2000/svg';

/**
 * An `<svg role="img">` of `text` as a QR code (error correction M, a quiet zone of four modules), one
 * path of unit squares, scaled by CSS. `label` is what a screen reader says instead of the picture.
 */
export function qrCode(text: string, label: string): SVGSVGElement {
  const { data, size } = encode(text, { ecc: 'M', border: 4 });
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('class', 'qr');
  svg.setAttribute('shape-rendering', 'crispEdges');
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#fff');
  let d = '';
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`;
    });
  });
  const modules = document.createElementNS(SVG, 'path');
  modules.setAttribute('d', d);
  modules.setAttribute('fill', '#000');
  svg.append(background, modules);
  return svg;
}
