provider myapp {
	probe start(int);
	probe start(char *);
};
