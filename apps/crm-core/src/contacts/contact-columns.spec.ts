import { escapeLike } from '../common/sql';
import { digitsOf, fold, letterOf, searchTermOf, searchTextOf, sortNameOf } from './contact-columns';

describe('derived contact columns', () => {
  it('sorts by last name, else company name, then first name, folded', () => {
    expect(sortNameOf({ first_name: 'Ada', last_name: 'Lovelace', company_name: 'Engines' })).toBe('lovelace ada');
    expect(sortNameOf({ first_name: '', last_name: '', company_name: ' Émile & Co ' })).toBe('emile & co');
    expect(sortNameOf({ first_name: 'Zoë', last_name: '', company_name: '' })).toBe('zoe');
  });

  it('groups by the first letter a-z, else 1', () => {
    expect(letterOf('lovelace ada')).toBe('l');
    expect(letterOf('3m partners')).toBe('1');
    expect(letterOf('')).toBe('1');
    expect(letterOf(sortNameOf({ first_name: '', last_name: 'Østergaard', company_name: '' }))).toBe('1');
    expect(letterOf(sortNameOf({ first_name: '', last_name: 'Ångström', company_name: '' }))).toBe('a');
  });

  it('searches names both ways, company, emails, urls and phones as written and as digits', () => {
    const text = searchTextOf({
      first_name: 'Ada',
      last_name: 'Lovelace',
      company_name: 'Engines',
      phones: [{ value: '+44 (20) 7946-0018' }],
      emails: [{ value: 'Ada@Example.test' }],
      urls: [{ value: 'https://ada.example' }],
    });
    expect(text.split('\n')).toEqual([
      'ada lovelace',
      'lovelace ada',
      'engines',
      '+44 (20) 7946-0018',
      '442079460018',
      'ada@example.test',
      'https://ada.example',
    ]);
  });

  it('turns phone-like terms into digits and escapes LIKE wildcards', () => {
    expect(searchTermOf(' +1 (555) 010-2000 ')).toBe('15550102000');
    expect(searchTermOf('Émile')).toBe('emile');
    expect(searchTermOf('2024 report')).toBe('2024 report');
    expect(digitsOf('a1b2')).toBe('12');
    expect(escapeLike('50%_off\\')).toBe('50\\%\\_off\\\\');
    expect(fold('ÇA')).toBe('ca');
  });
});
