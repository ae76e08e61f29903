// One lint config for the whole repository. The block for src/workflows keeps workflow code deterministic:
// no Node built-ins, no HTTP client, no activity or platform implementations (types only).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`, `${name}/*`]);

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'dist',
      '**/dist',
      'coverage',
      '.tools',
      '.temporal',
      '.data',
      'bench/results',
      'artifacts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({
              name,
              message: 'Workflow code must be deterministic: no Node built-ins.',
            })),
            { name: 'axios', message: 'Workflow code makes no HTTP calls: do it in an activity.' },
          ],
          patterns: [
            {
              group: [
                '**/activities',
                '**/activities/*',
                '**/platform',
                '**/platform/*',
                '**/sandbox/*',
                'axios/*',
              ],
              allowTypeImports: true,
              message: 'Workflows import activities and the platform client as types only.',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', process: 'readonly' },
    },
  },
  prettier,
);
