// The credentials atrium recognises that secretlint's recommended preset does not (scan.ts runs
// both): JSON Web Tokens, Stripe keys, Azure connection-string keys, SAS signatures and Entra ID
// client secrets, Google API keys, and passwords in URLs of any scheme or in `key=value`
// connection strings (the preset knows only http(s)/ftp basic auth and MongoDB, MySQL and
// PostgreSQL URIs). Each pattern says which kind it is; where it names a `secret` group only that
// part is replaced (the rest of a URL or connection string stays readable), else the whole match.
//
// Every pattern reads in time linear in the text: each starts with a literal or with a
// look-behind that lets it start only where a run of its characters starts, and every repeat is
// bounded. The longest match (a JWT: three parts of at most 8,192) stays under
// SECRET_SCAN_OVERLAP_CHARS (spec/bounds.md), which scan.ts relies on across its passes.

export interface OwnRule { kind: string; pattern: RegExp }

export const OWN_RULES: readonly OwnRule[] = [
  // header.payload.signature, both JSON parts base64url of an object ("eyJ" is `{"`).
  { kind: "jwt", pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,8192}\.eyJ[A-Za-z0-9_-]{5,8192}\.[A-Za-z0-9_-]{0,8192}/g },
  // Secret and restricted API keys (live and test) and webhook signing secrets; publishable keys (pk_) are public.
  { kind: "stripe", pattern: /(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247}|whsec_[A-Za-z0-9+/=]{24,128})(?![A-Za-z0-9])/g },
  // Storage and Service Bus / Event Hubs connection strings carry their key as AccountKey= / SharedAccessKey=.
  { kind: "azure", pattern: /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/]{20,256}={0,2})/dg },
  // A shared access signature's signature in a URL query.
  { kind: "azure", pattern: /[?&]sig=(?<secret>[A-Za-z0-9%+/=]{16,256})/dg },
  // Entra ID (Azure AD) client secrets: three characters, a digit, "Q~", then 31 to 34 more.
  { kind: "azure", pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g },
  // Google Cloud API keys.
  { kind: "gcp", pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  // scheme://user:password@host, any scheme (redis://, amqp://, smtp://, …): the password only.
  { kind: "password", pattern: /:\/\/[^\s:@/?#]{0,256}:(?<secret>[^\s@/?#]{1,256})@/dg },
  // Password= / Pwd= / Passwd= inside a connection string (after a ;, up to the next) or a URL query (after ? or &, up to the next & or #): the value only.
  { kind: "password", pattern: /(?<=;)\s{0,8}(?:password|passwd|pwd)\s{0,8}=\s{0,8}["']?(?<secret>[^;\s'"]{1,256})/dgi },
  { kind: "password", pattern: /(?<=[?&])(?:password|passwd|pwd)=(?<secret>[^&#\s'"]{1,256})/dgi },
];
