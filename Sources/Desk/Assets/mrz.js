// ICAO 9303-3 check digits: weights 7, 3, 1; digits are their value, A-Z 10-35, '<' 0.
export function checkDigit(field) {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < field.length; i++) {
    const c = field[i];
    let value;
    if (c >= '0' && c <= '9') value = c.charCodeAt(0) - 48;
    else if (c >= 'A' && c <= 'Z') value = c.charCodeAt(0) - 55;
    else if (c === '<') value = 0;
    else return null;
    sum += value * weights[i % 3];
  }
  return String(sum % 10);
}

// The document number as the MRZ holds it: capitals, fillers to 9 characters.
export function documentNumberField(text) {
  const cleaned = text.toUpperCase().replace(/[\s<]/g, '');
  return cleaned.length < 9 ? cleaned.padEnd(9, '<') : cleaned;
}

export function isDate(text) {
  if (!/^\d{6}$/.test(text)) return false;
  const month = Number(text.slice(2, 4)), day = Number(text.slice(4, 6));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

// "880412" → "1988-04-12" (births in the past, expiries within the next decades), as the CLI does.
export function isoDate(yymmdd, kind, today = new Date()) {
  if (!/^\d{6}$/.test(yymmdd)) return yymmdd;
  const yy = Number(yymmdd.slice(0, 2));
  const current = today.getUTCFullYear() % 100;
  let century = Math.floor(today.getUTCFullYear() / 100) * 100;
  if (kind === 'birth' && yy > current) century -= 100;
  if (kind === 'expiry' && yy < current - 50) century += 100;
  return `${century + yy}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
}
