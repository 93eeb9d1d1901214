// The page answered to a sign-in that failed (a wrong `?token=`): a plain form, so it works without the front end.

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** The sign-in page's HTML, with a message saying why it is shown. */
export function signInPage(base: string, message: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Sign in · Herald console</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;padding:1rem;box-sizing:border-box}
form{max-width:24rem;width:100%;display:grid;gap:.75rem}
input,button{font:inherit;padding:.5rem .75rem;border-radius:.375rem;border:1px solid #767676}
button{background:#1d4ed8;color:#fff;border-color:#1d4ed8;cursor:pointer}
p[role=alert]{color:#b91c1c;margin:0}
@media (prefers-color-scheme:dark){body{background:#111827;color:#f3f4f6}p[role=alert]{color:#fca5a5}input{background:#1f2937;color:#f3f4f6}}
</style>
</head>
<body>
<main>
<form method="post" action="${escapeHtml(base)}/api/session">
<h1>Herald console</h1>
<p role="alert">${escapeHtml(message)}</p>
<label for="token">Console token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>`;
}
