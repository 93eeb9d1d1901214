/** The C library native addons link against on this machine, which decides whether a Linux build loads. */
export interface CLibrary {
  /** `none` off Linux (macOS and Windows builds link the system's own runtime). */
  readonly family: 'glibc' | 'musl' | 'unknown' | 'none';
  /** glibc's version at run time (`2.36`); musl does not say its own. */
  readonly version?: string;
}

interface ReportShape {
  readonly header?: { readonly glibcVersionRuntime?: string };
  readonly sharedObjects?: readonly string[];
}

/** Reads the running process's C library from Node's diagnostic report (no shell-out, no `ldd`). */
export function runtimeCLibrary(): CLibrary {
  if (process.platform !== 'linux') return { family: 'none' };
  const report = process.report.getReport() as ReportShape;
  const glibc = report.header?.glibcVersionRuntime;
  if (glibc) return { family: 'glibc', version: glibc };
  // musl has no version query; its loader shows up among the process's shared objects.
  if (report.sharedObjects?.some((file) => /ld-musl|libc\.musl/.test(file))) return { family: 'musl' };
  return { family: 'unknown' };
}

/** `glibc 2.36`, `musl`, … for a sentence. */
export function describeCLibrary(library: CLibrary): string {
  if (library.family === 'none') return `the ${process.platform} system libraries`;
  if (library.family === 'unknown') return 'an unknown C library';
  return library.version ? `${library.family} ${library.version}` : library.family;
}
