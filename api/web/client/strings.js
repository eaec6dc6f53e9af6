// Every text of the web interface in the four languages of spec 2.7, keyed by the spec's language keys, one file per
// language in strings/. A test fails when a key is missing or empty in one language, when placeholders differ, or
// when the code uses a key that is not here. Texts from the controller (settings labels, descriptions, causes,
// messages) come from the API in the language of the Language setting.
import { DE } from "./strings/de.js";
import { FR } from "./strings/fr.js";
import { GB } from "./strings/gb.js";
import { NL } from "./strings/nl.js";

export const STRINGS = { gb: GB, de: DE, nl: NL, fr: FR };
