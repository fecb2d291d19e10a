// Style sheets are imported for their side effect; esbuild bundles them into one CSS file.
declare module '*.css';
