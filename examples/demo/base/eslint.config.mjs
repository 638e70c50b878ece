export default [
  {
    files: ["**/*.js"],
    languageOptions: { sourceType: "module", globals: { console: "readonly" } },
    rules: { "no-unused-vars": "error", eqeqeq: "warn", "no-undef": "error" },
  },
];
