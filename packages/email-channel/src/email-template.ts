import { collapseSummaryOf, type DeliveryItem, escapeHtml } from '@herald/notifications';

/** One notification as an email shows it. */
export type EmailItem = DeliveryItem;

/** A rendered email: its subject, HTML part and plain-text part. */
export interface RenderedEmail {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
}

/** Renders one notification. */
export type EmailTemplate = (item: EmailItem) => RenderedEmail;

/** Renders a digest: several notifications to one recipient as one email. */
export type DigestTemplate = (items: readonly EmailItem[]) => RenderedEmail;

function htmlItem(item: EmailItem): string {
  const title = escapeHtml(item.title);
  const heading = item.actionUrl ? `<a href="${escapeHtml(item.actionUrl)}">${title}</a>` : title;
  const summary = collapseSummaryOf(item);
  const count = summary ? `<p style="margin:0 0 4px;color:#555">${escapeHtml(summary)}</p>` : '';
  return `<h2 style="font-size:16px;margin:0 0 4px">${heading}</h2>${count}<p style="margin:0 0 16px">${escapeHtml(item.message)}</p>`;
}

function textItem(item: EmailItem): string {
  return [item.title, collapseSummaryOf(item), item.message, item.actionUrl].filter(Boolean).join('\n');
}

function htmlPage(subject: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body style="font-family:system-ui,sans-serif;line-height:1.4">${body}</body></html>`;
}

/** The default single-notification email: the title as subject and heading (linked to `action_url`), the message. */
export const defaultEmailTemplate: EmailTemplate = (item) => ({
  subject: item.title,
  html: htmlPage(item.title, htmlItem(item)),
  text: `${textItem(item)}\n`,
});

/** The default digest: "3 new notifications", then every item, oldest first. */
export const defaultDigestTemplate: DigestTemplate = (items) => {
  const subject = `${items.length} new notifications`;
  return {
    subject,
    html: htmlPage(
      subject,
      `<h1 style="font-size:20px">${escapeHtml(subject)}</h1>${items.map(htmlItem).join('')}`,
    ),
    text: `${subject}\n\n${items.map(textItem).join('\n\n')}\n`,
  };
};
