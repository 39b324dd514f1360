// The login page: says why the last attempt did not sign in (the server names the reason in the
// query string; a wrong password never says which half was wrong).

const MESSAGES = {
  wrong: ['notice-error', 'Wrong user name or password.'],
  throttled: ['notice-error', 'Too many failed sign-ins: wait a few minutes, then try again.'],
  'cross-site': ['notice-error', 'Sign in from this page: a sign-in sent from another site is refused.'],
  'signed-out': ['notice-info', 'You are signed out.'],
};

const params = new URLSearchParams(window.location.search);
const key = Object.keys(MESSAGES).find((k) => params.has(k) || params.get('error') === k);
if (key) {
  const [kind, text] = MESSAGES[key];
  const notice = document.createElement('div');
  notice.className = `notice ${kind}`;
  notice.dataset.testid = 'login-message';
  notice.textContent = text;
  document.getElementById('login-message').append(notice);
}
