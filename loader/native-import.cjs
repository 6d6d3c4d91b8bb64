// Node's own `import()`, from a file Node loads itself: a test runner or bundler that transforms
// the framework's sources routes their `import()` through its module graph instead.
module.exports = (url) => import(url);
