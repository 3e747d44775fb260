// What every part of the page uses: elements by id, elements made with text only (never markup),
// and POST to the desk with its cookie, an error's message thrown as the desk wrote it.
export const $ = (id) => document.getElementById(id);

export function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

export async function post(path, body, type = 'application/json') {
  const response = await fetch(path, {
    method: 'POST', headers: { 'Content-Type': type }, credentials: 'same-origin',
    body: type === 'application/json' ? JSON.stringify(body ?? {}) : body,
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : {};
  if (!response.ok) throw new Error(data.error ? data.error.message : `${response.status} ${response.statusText}`);
  return data;
}
