%{
int nl_stub_lex(void);
void nl_stub_error(const char *s);
%}
%define api.prefix {nl_stub_}
%%
input: %empty ;
%%
