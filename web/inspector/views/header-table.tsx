/** Headers as a table of name and value (values already masked by the backend). */

import type { JSX } from 'preact';

export function HeaderTable(props: {
  headers: ReadonlyArray<readonly [string, string]>;
  label: string;
}): JSX.Element {
  return (
    <table class="headers" aria-label={props.label}>
      <tbody>
        {props.headers.map(([name, value], index) => (
          <tr key={index}>
            <th scope="row">{name}</th>
            <td>
              <code>{value}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
