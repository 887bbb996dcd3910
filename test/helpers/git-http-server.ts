// The server lives beside the sources (a testing/ directory, built but not packaged) so that the
// bench can use it too.
export * from '../../generator/sources/testing/git-http-server.js';
