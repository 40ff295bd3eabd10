const escape = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const SCOPE_TEXT: Record<string, string> = {
  crm: 'Read and change all your CRM data (contacts, deals, notes, actions)',
  'crm.readonly': 'Read your CRM data without changing it',
  mcp: 'Let an AI assistant read your CRM data and log notes, calls and actions',
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#1a1a1a;margin:0}
main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.4rem;margin-top:0}label{display:block;font-weight:600;margin-top:1rem}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #888;border-radius:4px;font-size:1rem}
input:focus,button:focus{outline:3px solid #1d4ed8;outline-offset:2px}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{padding:.6rem 1.2rem;font-size:1rem;border-radius:4px;border:1px solid #1d4ed8;cursor:pointer}
.primary{background:#1d4ed8;color:#fff}.secondary{background:#fff;color:#1d4ed8}
.error{background:#fde8e8;border:1px solid #b91c1c;color:#7f1d1d;padding:.75rem;border-radius:4px}
ul{padding-left:1.2rem}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export interface LoginPageModel {
  uid: string;
  csrf: string;
  clientName: string;
  email?: string;
  error?: string;
}

export function renderLoginPage(model: LoginPageModel): string {
  return layout(
    'Sign in',
    `<h1>Sign in to continue to ${escape(model.clientName)}</h1>
${model.error ? `<p class="error" role="alert" id="form-error">${escape(model.error)}</p>` : ''}
<form method="post" action="/oauth/interaction/${escape(model.uid)}/login" ${model.error ? 'aria-describedby="form-error"' : ''}>
<input type="hidden" name="csrf" value="${escape(model.csrf)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escape(model.email)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>
<form method="post" action="/oauth/interaction/${escape(model.uid)}/abort"><input type="hidden" name="csrf" value="${escape(model.csrf)}">
<div class="actions"><button class="secondary" type="submit">Cancel</button></div></form>`,
  );
}

export interface ConsentPageModel {
  uid: string;
  csrf: string;
  clientName: string;
  scopes: string[];
}

export function renderConsentPage(model: ConsentPageModel): string {
  const items = model.scopes.map((s) => `<li><strong>${escape(s)}</strong>: ${escape(SCOPE_TEXT[s] ?? s)}</li>`).join('');
  return layout(
    'Authorize access',
    `<h1>${escape(model.clientName)} wants access to your account</h1>
<p>It asks for:</p><ul>${items}</ul>
<div class="actions">
<form method="post" action="/oauth/interaction/${escape(model.uid)}/confirm"><input type="hidden" name="csrf" value="${escape(model.csrf)}"><button class="primary" type="submit">Allow</button></form>
<form method="post" action="/oauth/interaction/${escape(model.uid)}/abort"><input type="hidden" name="csrf" value="${escape(model.csrf)}"><button class="secondary" type="submit">Deny</button></form>
</div>`,
  );
}

export function renderOAuthErrorPage(error: string, description: string): string {
  return layout(
    'Authorization error',
    `<h1>This request cannot be completed</h1>
<p class="error" role="alert">Error: <code id="error">${escape(error)}</code></p>
<p id="error_description">${escape(description)}</p>
<p>Return to the application you came from and try again. If the problem persists, contact its developer.</p>`,
  );
}
