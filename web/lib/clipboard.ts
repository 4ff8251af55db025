// Copying text in any browser and on any address: the Clipboard API where the page is a secure context
// (https, localhost), else the older copy command on a hidden field — which Chromium, Firefox and Safari
// still honour during a click on plain http, the address the LAN gives a class. False when neither
// copied: the caller then shows the text selected, for the person to copy.
export async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Refused (no permission, page not focused): the copy command may still work.
    }
  }
  return copyByCommand(text);
}

function copyByCommand(text: string): boolean {
  const field = document.createElement('textarea');
  field.value = text;
  field.setAttribute('readonly', '');
  field.setAttribute('aria-hidden', 'true');
  field.style.position = 'fixed';
  field.style.top = '0';
  field.style.left = '-9999px';
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  document.body.append(field);
  field.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  field.remove();
  focused?.focus();
  return copied;
}
